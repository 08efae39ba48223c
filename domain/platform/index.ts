/**
 * The agent platform's pure domain: ids, the five action gates (with the G2 heuristic and the G3
 * detectors), verdicts and the agent's governance state, the leaf records, the feature catalog and
 * the cost model. No I/O: clocks, randomness (beyond ids.ts) and keys come in as arguments.
 */
export * from './action-gates';
export * from './capabilities';
export * from './cost-model';
export * from './detectors';
export * from './ids';
export * from './injection';
export * from './linear-regex';
export * from './records';
export * from './verdict';
