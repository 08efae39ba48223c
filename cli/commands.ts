import { auditCommand } from './audit-command';
import type { CliCommand } from './command';
import { exportCommand } from './export-command';
import { importCommand } from './import-command';
import { keysCommand } from './keys-command';
import { projectionsCommand } from './projections-command';
import { rebuildCommand } from './rebuild-command';
import { tenantCommand } from './tenant-command';
import { userCommand } from './user-command';
import { witnessCommand } from './witness-command';

/** Every subcommand of `gov`, in the order `gov --help` lists them. */
export const commands: readonly CliCommand[] = [
  rebuildCommand,
  projectionsCommand,
  tenantCommand,
  userCommand,
  exportCommand,
  importCommand,
  keysCommand,
  witnessCommand,
  auditCommand,
];
