/** Outcome of a verification: success, or failure with a reason a person can act on. */
export type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export const OK: Verdict = Object.freeze({ ok: true });

export function fail(reason: string): Verdict {
  return { ok: false, reason };
}
