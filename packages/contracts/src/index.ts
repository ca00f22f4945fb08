export * from './owner-registry';
export * from './public-suffix';
export * from './event-message';
export * from './event-batch';
export * from './measures';
export * from './campaign-registry';
export * from './campaign-registry-codec';
