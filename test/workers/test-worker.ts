// A worker entry for the pool's tests: echoes, moves a buffer back, throws, and dies mid-task.
import { serveTasks } from '../../src-main/workers/serve.ts';

serveTasks({
  echo: (input: { n: number }) => Promise.resolve({ value: { n: input.n, thread: 'worker' } }),
  bytes: (input: { length: number }) => {
    const bytes = new Uint8Array(input.length).fill(7);
    return Promise.resolve({ value: bytes, transfer: [bytes.buffer] });
  },
  fail: () => Promise.reject(new RangeError('no such paper width')),
  crash: () => {
    // An uncaught failure outside the task's promise: the whole worker thread dies.
    setImmediate(() => {
      throw new Error('worker blew up');
    });
    return new Promise(() => undefined);
  },
  slow: (input: { ms: number }) =>
    new Promise((resolve) => setTimeout(() => resolve({ value: input.ms }), input.ms)),
});
