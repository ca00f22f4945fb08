export * from './owner-registry';
export * from './event-message';
