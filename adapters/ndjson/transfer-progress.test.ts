import { TransferProgress } from './transfer-progress';

describe('TransferProgress', () => {
  it('reports events, position, rate and ETA towards the target from the elapsed time', () => {
    let now = 0;
    const progress = new TransferProgress(1000, 200, () => now);
    for (let position = 1; position <= 250; position++) progress.record(position);
    now = 2000;
    expect(progress.snapshot()).toEqual({
      events: 250,
      position: 250,
      target: 1000,
      rate: 125,
      // 250 positions in 2 s: the 750 left take 6 s.
      etaSeconds: 6,
    });
  });

  it('says a report is due on the first event, then at most once per interval', () => {
    let now = 0;
    const progress = new TransferProgress(10, 200, () => now);
    expect(progress.record(1)).toBe(true);
    now = 150;
    expect(progress.record(2)).toBe(false);
    now = 200;
    expect(progress.record(3)).toBe(true);
  });

  it('given no event yet, then the ETA is unknown; given a target set late (an import header), then it is used', () => {
    let now = 0;
    const progress = new TransferProgress(0, 200, () => now);
    expect(progress.snapshot().etaSeconds).toBeNull();
    progress.setTarget(40);
    progress.record(10);
    now = 1000;
    expect(progress.snapshot()).toMatchObject({ target: 40, etaSeconds: 3 });
  });
});
