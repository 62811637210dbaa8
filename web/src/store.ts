import { useEffect, useState } from 'preact/hooks';

/** A value that components and the map watch; `set` tells every watcher. */
export class Store<T> {
  private listeners = new Set<(value: T) => void>();
  constructor(private value: T) {}
  get(): T {
    return this.value;
  }
  set(value: T) {
    this.value = value;
    for (const listener of this.listeners) listener(value);
  }
  update(change: (value: T) => T) {
    this.set(change(this.value));
  }
  subscribe(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The store's current value, re-rendering the component when it changes. */
export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}
