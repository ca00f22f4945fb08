import { Router } from 'express';
import { asyncHandler, isFormBody, validate } from '@cm/platform';
import { callerOf } from '../auth/authenticated-user';
import { pageQuerySchema } from '../pagination/page-query';
import { createCampaignSchema, editCampaignSchema } from './campaign-schemas';
import type { CampaignService } from './campaign-service';
import { pathToken } from './path-token';

/** Campaigns. Mounted under /api/v3 behind bearer auth, before the content routes (see campaign-feature.ts). */
export function campaignRoutes(campaigns: CampaignService): Router {
  const router = Router();

  router.get(
    '/campaign',
    asyncHandler(async (req, res) => {
      const page = validate(pageQuerySchema, req.query, 'query');
      res.json(
        page.limit === undefined
          ? await campaigns.list(callerOf(req))
          : await campaigns.listPage(callerOf(req), page.limit, page.cursor),
      );
    }),
  );

  router.post(
    '/campaign',
    asyncHandler(async (req, res) => {
      const input = validate(createCampaignSchema, req.body, 'campaign', { convert: isFormBody(req) });
      res.status(200).json(await campaigns.create(callerOf(req), input));
    }),
  );

  router.get(
    '/campaign/:token',
    asyncHandler(async (req, res) => {
      res.json(await campaigns.read(callerOf(req), pathToken(req.params.token, 'campaign')));
    }),
  );

  router.post(
    '/campaign/:token',
    asyncHandler(async (req, res) => {
      const token = pathToken(req.params.token, 'campaign');
      const input = validate(editCampaignSchema, req.body, 'campaign', { convert: isFormBody(req) });
      res.status(200).json(await campaigns.edit(callerOf(req), token, input));
    }),
  );

  router.delete(
    '/campaign/:token',
    asyncHandler(async (req, res) => {
      await campaigns.delete(callerOf(req), pathToken(req.params.token, 'campaign'));
      res.status(204).end();
    }),
  );

  return router;
}
