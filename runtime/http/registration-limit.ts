import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config/config';
import { clientAddressKey } from './client-address';
import { RequestRateLimiter, sendRateLimited } from './rate-limit';

const HOUR_MS = 3_600_000;

/**
 * POST /auto-register has no key to limit by, so it is limited per client address: at most
 * GOV_REGISTRATIONS_PER_IP_HOUR registrations per clock hour, then 429 RATE_LIMITED with Retry-After.
 * Mounted after body validation: a refused invalid body does not use up the allowance.
 */
export function limitRegistrationsPerClient(services: {
  clock(): Date;
  config: Pick<Config, 'registrationsPerIpHour'>;
}) {
  const limiter = new RequestRateLimiter(services.clock, HOUR_MS);
  return (req: Request, res: Response, next: NextFunction): void => {
    const perHour = services.config.registrationsPerIpHour;
    const wait = limiter.take(clientAddressKey(req), perHour);
    if (wait === null) {
      next();
      return;
    }
    sendRateLimited(
      res,
      wait,
      `more than ${perHour} registrations in an hour from this address; retry in ${wait} s`,
    );
  };
}
