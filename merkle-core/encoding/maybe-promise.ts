/** A value, or a promise of it: store and crypto interfaces may be synchronous or asynchronous. */
export type MaybePromise<T> = T | Promise<T>;
