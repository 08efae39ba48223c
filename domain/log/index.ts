/** The log of this service: a record's leaf (its canonical JSON) and the JSON STH, another spelling of a checkpoint. */

export {
  headsToAnchor,
  LOG_ANCHOR_RECORD_TYPE,
  type LogAnchorRecord,
  logAnchorRecord,
  type SignedHead,
} from './anchor';
export {
  anchorStreamOf,
  dedicatedLogOf,
  isLogName,
  LOG_NAME,
  logOfEvent,
  logOriginOf,
  logStreamOf,
  logUrlOf,
  SHARED_LOG_NAME,
  TEST_LOG_NAME,
  treeHeadStreamOf,
} from './log-names';
export { leafDataOfRecord, leafHashOfRecord } from './record';
export { checkpointNoteFromSth, type JsonSth, sthFromCheckpointNote, timestampExtension } from './sth';
export { verifySth } from './verify-sth';
