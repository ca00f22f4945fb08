export * from './repo-root';
export * from './ports';
export * from './binaries';
export * from './local-servers';
export * from './containers';
export * from './test-servers';
export * from './test-names';
export * from './openapi-contract';
