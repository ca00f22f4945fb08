import type { IndexDefinition } from '@cm/platform';

/** Indexes of every day bucket, created when a bucket is first written. */
export const BUCKET_INDEXES: IndexDefinition[] = [
  {
    // report: $match { owner_id, name?, created range } then $group by name (+ url/content_id)
    key: { owner_id: 1, name: 1, created: 1 },
    options: { name: 'owner_name_created' },
    serves: 'buildCountPipeline match on owner_id + name + created',
  },
  {
    // report filtered by content_id (the publishers' main filter besides url)
    key: { owner_id: 1, content_id: 1, created: 1 },
    options: { name: 'owner_content_created' },
    serves: 'buildCountPipeline match on owner_id + content_id',
  },
  {
    // report filtered by url
    key: { owner_id: 1, url: 1, created: 1 },
    options: { name: 'owner_url_created' },
    serves: 'buildCountPipeline match on owner_id + url',
  },
];
