/** proof: RFC 6962/9162 inclusion and consistency proofs (and MTC subtree proofs): build, verify, verdicts. */
export type { Verdict } from './verdict';
export {
  rootFromInclusionProof,
  verifyConsistency,
  verifyInclusion,
  verifySubtreeConsistency,
  verifySubtreeInclusion,
} from './verify';
