import { defaultStallWatch, urlOptions } from './renewing-client';

describe('defaultStallWatch', () => {
  it("given a URL that sets no timing, then a stall is a minute without a finished heartbeat (the driver's 30 s connect timeout, 10 s heartbeat, 20 s margin)", () => {
    expect(defaultStallWatch('mongodb://127.0.0.1:27017').stallMs).toBe(60_000);
  });

  it('given a URL that sets the heartbeat and connect timeout (in any case), then the stall limit follows them', () => {
    const url = 'mongodb://db:27017/?HeartbeatFrequencyMS=60000&connectTimeoutMS=5000&socketTimeoutMS=1';
    expect(defaultStallWatch(url).stallMs).toBe(85_000);
    expect([...urlOptions(url).keys()]).toEqual([
      'heartbeatfrequencyms',
      'connecttimeoutms',
      'sockettimeoutms',
    ]);
  });
});
