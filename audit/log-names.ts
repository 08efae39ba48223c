/**
 * The names of the logs and the streams each one's events are in (issue 32's contract): `shared`,
 * `test`, `dedicated-<24 hex>`; a log other than shared is created by a LogCreated in stream
 * `log-<name>` and has its tree heads in `merkle-log-<name>`.
 */
import { SHARED_LOG } from '../ports/log';
import { LOG_STREAM } from '../projectors/log/log-sequencer';

const OTHER_LOG_NAME = /^(test|dedicated-[0-9a-f]{24})$/;

/** `test` or `dedicated-<24 hex>`: the name of a log that is created by a LogCreated event. */
export function isOtherLogName(name: string): boolean {
  return OTHER_LOG_NAME.test(name);
}

export function isLogName(name: string): boolean {
  return name === SHARED_LOG || OTHER_LOG_NAME.test(name);
}

/** The stream of a log's tree heads. */
export function treeHeadStreamOf(log: string): string {
  return log === SHARED_LOG ? LOG_STREAM : `${LOG_STREAM}-${log}`;
}

/** The stream whose first event is the log's LogCreated. */
export function logCreatedStreamOf(log: string): string {
  return `log-${log}`;
}
