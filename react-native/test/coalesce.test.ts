/** coalesce(): one run at a time, at most one per interval, a burst of requests folded into one more run. */
import { coalesce } from '../src/coalesce.js';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** Lets the promise callbacks queued so far run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
/** A task whose runs the test ends one by one. */
function controlledTask() {
  const finishers: Array<() => void> = [];
  const task = jest.fn(() => new Promise<void>((resolve) => finishers.push(resolve)));
  const finish = async () => {
    finishers.shift()!();
    await settle();
  };
  return { task, finish };
}

it('runs at once, folds requests during a run into one more run, no sooner than the interval', async () => {
  const { task, finish } = controlledTask();
  const resync = coalesce(task, 1_000);
  resync.request();
  expect(task).toHaveBeenCalledTimes(1);
  for (let i = 0; i < 5; i++) resync.request();
  expect(task).toHaveBeenCalledTimes(1);
  jest.advanceTimersByTime(200);
  await finish();
  expect(task).toHaveBeenCalledTimes(1); // 200 ms after the first start: waits out the interval
  jest.advanceTimersByTime(799);
  expect(task).toHaveBeenCalledTimes(1);
  jest.advanceTimersByTime(1);
  expect(task).toHaveBeenCalledTimes(2);
  await finish();
  jest.advanceTimersByTime(5_000);
  expect(task).toHaveBeenCalledTimes(2); // nothing was asked meanwhile
});

it('starts nothing after dispose(), and a failed run does not stop the next', async () => {
  let fail = true;
  const task = jest.fn(async () => {
    if (fail) throw new Error('offline');
  });
  const resync = coalesce(task, 1_000);
  resync.request();
  await settle();
  fail = false;
  jest.advanceTimersByTime(1_000);
  resync.request();
  expect(task).toHaveBeenCalledTimes(2);
  await settle();
  jest.advanceTimersByTime(100);
  resync.request(); // within the interval: waits
  resync.dispose();
  jest.advanceTimersByTime(5_000);
  expect(task).toHaveBeenCalledTimes(2);
});
