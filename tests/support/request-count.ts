/**
 * How many requests a service's /v1/metrics counts under one route and status (the count of its
 * request-duration histogram), so a test can see a fast path counted as the Express route is.
 */
export async function requestCount(
  serviceUrl: string,
  histogram: 'gov_http_request_duration_seconds' | 'gov_platform_http_request_duration_seconds',
  route: string,
  status: number,
): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/v1/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${histogram}_count{`) &&
        l.includes(`route="${route}"`) &&
        l.includes(`status="${status}"`),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}
