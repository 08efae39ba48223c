/**
 * The EventStoreDB suite can only start its server where Docker runs, so its harness is checked here:
 * testcontainers 12 needs Node 22 (its undici) and failed to load on Node 20, which only a Docker host
 * would have shown.
 */
it('given this Node version, then testcontainers (which starts EventStoreDB on a Docker host) loads', async () => {
  const testcontainers = await import('testcontainers');
  expect(typeof testcontainers.GenericContainer).toBe('function');
  expect(typeof testcontainers.Wait.forHttp).toBe('function');
});
