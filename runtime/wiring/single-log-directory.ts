import type { LogDescription, LogDirectory, LogSource } from '../../ports/log';
import { SHARED_LOG } from '../../ports/log';

/**
 * A process's logs when it knows only the shared one: today's single `LogSource` as a directory of
 * one log. Its origin is the checkpoint's first line, its key the source's current one.
 */
export function singleLogDirectory(source: LogSource): LogDirectory {
  return {
    list(): LogDescription[] {
      const origin = source.latest().checkpoint.slice(0, source.latest().checkpoint.indexOf('\n'));
      return [{ name: SHARED_LOG, kind: 'shared', origin, verifierKey: source.verifierKey, tenantId: null }];
    },
    source: (name) => (name === SHARED_LOG ? source : null),
    caughtUp: async () => undefined,
  };
}
