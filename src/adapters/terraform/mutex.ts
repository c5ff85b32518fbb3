/** Runs async sections one at a time, in call order; a failing section does not block the next. */
export interface Mutex {
  run<T>(section: () => Promise<T>): Promise<T>;
}

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(section: () => Promise<T>): Promise<T> {
      const result = tail.then(section);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
