export * from './owner-registry';
export * from './event-message';
export * from './event-batch';
