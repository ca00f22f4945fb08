/** A background part of a role: started after the server listens, stopped after it closed. */
export interface Worker {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}
