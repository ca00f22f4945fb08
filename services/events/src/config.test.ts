import { loadEventsConfig } from './config';

// production refuses guessable operator tokens (platform operator-token.ts): a random one
const production = {
  NODE_ENV: 'production',
  ADMIN_TOKEN: '9b1c4e7a2f6d08e35a7c91b4d2e6f0a8c3b5d7e91f2a4c6e8b0d1f3a5c7e9b2d',
  VISITOR_ID_KEY: '4f0c9a7e3b1d52c8e6a09f7b3d1c5e2a8b6f4d0c7e9a1b3f5d2c8e0a6b4f1d3c',
};

describe('events configuration', () => {
  test('when production keeps the default write concern, then it starts with majority and journal', () => {
    expect(loadEventsConfig(production)).toMatchObject({
      EVENTS_WRITE_CONCERN_W: 'majority',
      EVENTS_WRITE_CONCERN_J: true,
    });
  });

  test('when production turns the journal off, then it refuses to start naming the setting', () => {
    expect(() => loadEventsConfig({ ...production, EVENTS_WRITE_CONCERN_J: 'false' })).toThrow(
      /EVENTS_WRITE_CONCERN_J.*refused in production/,
    );
  });

  test('when production sets a member count instead of majority, then it refuses to start naming the setting', () => {
    expect(() => loadEventsConfig({ ...production, EVENTS_WRITE_CONCERN_W: '1' })).toThrow(
      /EVENTS_WRITE_CONCERN_W.*majority/,
    );
  });

  test('when production runs the ingest role without VISITOR_ID_KEY, then it refuses to start naming the setting', () => {
    const { VISITOR_ID_KEY: _, ...withoutKey } = production;
    expect(() => loadEventsConfig(withoutKey)).toThrow(/VISITOR_ID_KEY: is required in production/);
    // roles that never hash a vid do not need it
    expect(loadEventsConfig({ ...withoutKey, EVENTS_ROLES: 'consumer,reporting' }).VISITOR_ID_KEY).toBeUndefined();
    // but a key that is set (a shared Secret) must be a real one in every role
    expect(() =>
      loadEventsConfig({
        ...production,
        EVENTS_ROLES: 'consumer',
        VISITOR_ID_KEY: 'REPLACE_ME-visitor-id-key-000000000000000',
      }),
    ).toThrow(/VISITOR_ID_KEY/);
  });

  test.each([
    ['a placeholder', 'REPLACE_ME-visitor-id-key-000000000000000', /placeholder|replaceme/i],
    ['a short key', 'a'.repeat(20), /at least 32/],
  ])(
    'when production gets %s as VISITOR_ID_KEY, then it refuses to start without echoing the key',
    (_what, key, reason) => {
      let message = '';
      try {
        loadEventsConfig({ ...production, VISITOR_ID_KEY: key });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/VISITOR_ID_KEY/);
      expect(message).toMatch(reason);
      expect(message).not.toContain(key);
    },
  );

  test('when the visitor settings are not given, then salts rotate daily in the visitor_salts bucket and VISITOR_SALT_PERIOD accepts only day, week or month', () => {
    expect(loadEventsConfig({})).toMatchObject({ VISITOR_SALT_PERIOD: 'day', VISITOR_SALT_BUCKET: 'visitor_salts' });
    expect(loadEventsConfig({ VISITOR_SALT_PERIOD: 'week' }).VISITOR_SALT_PERIOD).toBe('week');
    expect(() => loadEventsConfig({ VISITOR_SALT_PERIOD: 'year' })).toThrow(/VISITOR_SALT_PERIOD/);
  });

  test('when development or tests weaken the write concern, then it is accepted', () => {
    expect(loadEventsConfig({ EVENTS_WRITE_CONCERN_W: '1', EVENTS_WRITE_CONCERN_J: 'false' })).toMatchObject({
      EVENTS_WRITE_CONCERN_W: 1,
      EVENTS_WRITE_CONCERN_J: false,
    });
    expect(loadEventsConfig({ NODE_ENV: 'test', EVENTS_WRITE_CONCERN_J: 'false' }).EVENTS_WRITE_CONCERN_J).toBe(false);
  });

  test('when the environment is empty, then every default applies as before', () => {
    expect(loadEventsConfig({})).toMatchObject({
      EVENTS_ROLES: ['ingest', 'consumer', 'reporting', 'rollup'],
      EVENTS_PORT: 3001,
      PUBLISH_TIMEOUT_MS: 10000,
      PUBLISH_ATTEMPT_TIMEOUT_MS: 1000,
      INGEST_PUBLISH_WINDOW: 2,
      CONSUMER_MAX_ACK_PENDING: 20000,
      ROLLUP_RETENTION_DAYS: 0,
      BODY_LIMIT: '32kb',
    });
    expect(loadEventsConfig({ EVENTS_ROLES: 'ingest, reporting' }).EVENTS_ROLES).toEqual(['ingest', 'reporting']);
  });

  test('when the country settings are left unset, then the bundled database is used and looked at every minute; a negative interval is refused', () => {
    const config = loadEventsConfig(production);
    expect(config.COUNTRY_DB_PATH).toBeUndefined();
    expect(config.COUNTRY_DB_RELOAD_INTERVAL_MS).toBe(60_000);
    expect(loadEventsConfig({ ...production, COUNTRY_DB_PATH: 'none' }).COUNTRY_DB_PATH).toBe('none');
    expect(() => loadEventsConfig({ ...production, COUNTRY_DB_RELOAD_INTERVAL_MS: '-1' })).toThrow(
      /COUNTRY_DB_RELOAD_INTERVAL_MS/,
    );
  });

  test('when rollup threads are not given, then the builder runs in the main thread; a count outside 1..16 or not a number is refused', () => {
    expect(loadEventsConfig({})).toMatchObject({ ROLLUP_THREADS: 1, ROLLUP_THREAD_HEAP_MB: 0 });
    expect(loadEventsConfig({ ROLLUP_THREADS: '2', ROLLUP_THREAD_HEAP_MB: '192' })).toMatchObject({
      ROLLUP_THREADS: 2,
      ROLLUP_THREAD_HEAP_MB: 192,
    });
    for (const bad of ['0', '17', '1.5', 'two', '$gt'])
      expect(() => loadEventsConfig({ ROLLUP_THREADS: bad })).toThrow(/ROLLUP_THREADS/);
    expect(() => loadEventsConfig({ ROLLUP_THREAD_HEAP_MB: '-1' })).toThrow(/ROLLUP_THREAD_HEAP_MB/);
  });
  test('when ROLLUP_ZONES is not given, then no zone has days of its own; given, names are spelled as Intl spells them', () => {
    expect(loadEventsConfig({}).ROLLUP_ZONES).toEqual([]);
    expect(loadEventsConfig({ ROLLUP_ZONES: '' }).ROLLUP_ZONES).toEqual([]);
    expect(loadEventsConfig({ ROLLUP_ZONES: 'america/new_york, Europe/Berlin' }).ROLLUP_ZONES).toEqual([
      'America/New_York',
      'Europe/Berlin',
    ]);
  });

  test('when ROLLUP_ZONES names an unknown zone, a zone off whole hours, too many zones, a repeat or an operator, then it refuses to start naming the setting', () => {
    const nine =
      'America/New_York,America/Chicago,America/Denver,America/Los_Angeles,Europe/London,Europe/Berlin,Europe/Helsinki,Asia/Tokyo,UTC';
    for (const bad of [
      'Mars/Olympus_Mons',
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'Australia/Lord_Howe',
      'America/St_Johns',
      '+05:30',
      '$gt',
      '{"$gt":""}',
      nine,
      'UTC,utc',
    ])
      expect(() => loadEventsConfig({ ROLLUP_ZONES: bad })).toThrow(/ROLLUP_ZONES/);
    expect(() => loadEventsConfig({ ROLLUP_ZONES: 'Asia/Kolkata' })).toThrow(/not a whole number of hours/);
  });
});
