/** proof: RFC 6962/9162 inclusion and consistency proofs (and MTC subtree proofs): build, verify, verdicts. */
export { EMPTY_TREE_ROOT, isValidSubtree } from './proof-programs';
export { consistencyProof, inclusionProof, type NodeSource } from './proofs';
export type { Verdict } from './verdict';
export {
  rootFromInclusionProof,
  verifyConsistency,
  verifyInclusion,
  verifySubtreeConsistency,
  verifySubtreeInclusion,
} from './verify';
