import { StreamOrder } from './stream-order';

/** The check codes found for each event of the list, in order. */
function checksOf(events: [position: number, stream: string, revision: number][]): string[][] {
  const order = new StreamOrder();
  return events.map(([position, stream, revision]) =>
    order.next(position, stream, revision).map((f) => f.check),
  );
}

describe('stream ordering', () => {
  it('given positions rising and every stream counting from 0, when read, then nothing is found', () => {
    expect(
      checksOf([
        [1, 'tenant-a', 0],
        [2, 'tenant-b', 0],
        [5, 'tenant-a', 1],
        [6, 'merkle-log', 0],
      ]).flat(),
    ).toEqual([]);
  });

  it('given a position that repeats or goes back, when read, then that event is reported', () => {
    expect(
      checksOf([
        [3, 'a', 0],
        [3, 'b', 0],
        [2, 'c', 0],
        [4, 'd', 0],
      ]),
    ).toEqual([[], ['position-order'], ['position-order'], []]);
  });

  it('given a stream that skips a revision (a dropped event), when read, then the event after the gap is reported once', () => {
    expect(
      checksOf([
        [1, 'a', 0],
        [2, 'a', 2],
        [3, 'a', 3],
      ]),
    ).toEqual([[], ['revision-gap'], []]);
  });

  it('given a stream whose first event is not revision 0, when read, then it is reported as a gap', () => {
    const order = new StreamOrder();
    const [finding] = order.next(1, 'a', 2);
    expect(finding).toMatchObject({ check: 'revision-gap' });
    expect(finding!.message).toMatch(/starts at revision 2, not 0/);
  });

  it('given two events of a stream swapped, when read, then the first is a gap and the second a step back', () => {
    expect(
      checksOf([
        [1, 'a', 0],
        [2, 'a', 2],
        [3, 'a', 1],
        [4, 'a', 3],
      ]),
    ).toEqual([[], ['revision-gap'], ['revision-order'], []]);
  });

  it('given a duplicated event, when read, then the copy is reported as a step back', () => {
    expect(
      checksOf([
        [1, 'a', 0],
        [2, 'a', 1],
        [3, 'a', 1],
      ]),
    ).toEqual([[], [], ['revision-order']]);
  });
});
