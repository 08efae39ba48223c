/** The pure domain: gates, observables, lifecycle, closed loop, proof bundle, validator round, envelope, report. */
export * from './admission-round';
export * from './bundle';
export * from './closed-loop';
export * from './envelope';
export * from './gates';
export * from './lifecycle';
export * from './observables';
export * from './policy';
export * from './report';
export * from './validators';
