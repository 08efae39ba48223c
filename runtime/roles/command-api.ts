import { startApiRole } from './api-role';
import { runRole } from './role-process';

/** The command API process (see `startApiRole`). */
runRole('command-api', (config, logger) => startApiRole('commands', config, logger));
