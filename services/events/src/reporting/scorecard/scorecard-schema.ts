import Joi from 'joi';
import { MEASURE_MAX } from '@cm/contracts';
import { ValidationError, validate } from '@cm/platform';
import { campaignToken, eventName, ownerId, refuseOwnProto } from '../request/report-schema';

/** The scorecard request, defaults filled in. */
export interface ScorecardBody {
  owner_id: string;
  campaign: string;
  /** The event of an exposure: impressions, reach, frequency and pacing count it. */
  impression_name: string;
  click_name: string;
  /** The event carrying `engaged_ms` (the snippet's attention measurement). */
  engagement_name: string;
  /** Engaged time from which a page view counts as attentive. */
  attentive_ms: number;
}

const NAME_FIELDS = ['impression_name', 'click_name', 'engagement_name'] as const;

const scorecardSchema = Joi.object<ScorecardBody>({
  owner_id: ownerId.required(),
  campaign: campaignToken.required(),
  impression_name: eventName.default('impression'),
  click_name: eventName.default('click'),
  engagement_name: eventName.default('engagement'),
  // strict: "10000" is not a number in a JSON body
  attentive_ms: Joi.number().integer().strict().min(0).max(MEASURE_MAX.engaged_ms).default(10_000),
});

/** The body's shape (400 naming each bad field), and three different names (400 naming the repeat). */
export function validateScorecardBody(body: unknown): ScorecardBody {
  refuseOwnProto(body);
  const input = validate(scorecardSchema, body, 'body');
  NAME_FIELDS.forEach((field, i) => {
    const earlier = NAME_FIELDS.slice(0, i).find((other) => input[other] === input[field]);
    if (earlier) throw new ValidationError('invalid body', [{ field, message: `must differ from ${earlier}` }]);
  });
  return input;
}
