import type { CliCommand } from './command';
import { projectionsCommand } from './projections-command';
import { rebuildCommand } from './rebuild-command';
import { tenantCommand } from './tenant-command';

/** Every subcommand of `gov`, in the order `gov --help` lists them. */
export const commands: readonly CliCommand[] = [rebuildCommand, projectionsCommand, tenantCommand];
