import type { EventStore } from '../../ports/event-store';

/** `store`, calling `onAppended` after each append it committed (to wake readers on other threads). */
export function observeAppends(store: EventStore, onAppended: () => void): EventStore {
  return {
    append: async (stream, events, options) => {
      const result = await store.append(stream, events, options);
      onAppended();
      return result;
    },
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    headPosition: (filter) => store.headPosition(filter),
    close: () => store.close(),
  };
}
