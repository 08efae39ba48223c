import { AppendNotifier } from './append-notifier';

/** A data_version another process moves, and how often it was read. */
function foreignFile() {
  const file = { version: 1, reads: 0 };
  const read = () => {
    file.reads += 1;
    return file.version;
  };
  return { file, read };
}

const elapsed = async (work: Promise<void>) => {
  const start = performance.now();
  await work;
  return performance.now() - start;
};

describe('AppendNotifier', () => {
  it('given appends by other processes keep coming, when a follower waits, then each is noticed within a few milliseconds', async () => {
    const { file, read } = foreignFile();
    const notifier = new AppendNotifier(200, read, 1);
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const seen = notifier.version();
      setTimeout(() => {
        file.version += 1;
      }, 5);
      waits.push(await elapsed(notifier.waitForChange(seen, new AbortController().signal)));
    }
    notifier.close();
    // The first may wait a whole idle interval (200 ms); once appends come, the active one (1 ms).
    expect(Math.max(...waits.slice(1))).toBeLessThan(100);
  });

  it('given no other process appends, when a follower waits, then polling backs off to the idle interval', async () => {
    const { read, file } = foreignFile();
    const notifier = new AppendNotifier(25, read, 1);
    const controller = new AbortController();
    const waiting = notifier.waitForChange(notifier.version(), controller.signal);
    file.version += 1; // one foreign append: polling turns quick
    await waiting;
    const quiet = notifier.waitForChange(notifier.version(), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const readsEarly = file.reads;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const readsLate = file.reads - readsEarly;
    controller.abort();
    await quiet;
    notifier.close();
    // At 1 ms it would read ~500 times in half a second; backed off to 25 ms, about 20.
    expect(readsLate).toBeLessThan(40);
  });

  it('given the active interval is not set, then it polls at the one interval (the embedded server)', async () => {
    const { read, file } = foreignFile();
    const notifier = new AppendNotifier(25, read);
    const controller = new AbortController();
    const waiting = notifier.waitForChange(notifier.version(), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 250));
    controller.abort();
    await waiting;
    notifier.close();
    expect(file.reads).toBeLessThan(15);
  });
});
