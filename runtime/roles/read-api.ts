import { startApiRole } from './api-role';
import { runRole } from './role-process';

/** The read API process (see `startApiRole`). */
runRole('read-api', (config, logger) => startApiRole('reads', config, logger));
