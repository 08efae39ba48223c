import type { ReadStore } from '../../ports/read-store';

/** `store` whose applies wait until `release` is called; everything else as it is. */
export function heldApplies<T extends ReadStore>(store: T): { held: T; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'apply')
        return (...args: Parameters<ReadStore['apply']>) => released.then(() => target.apply(...args));
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { held, release };
}
