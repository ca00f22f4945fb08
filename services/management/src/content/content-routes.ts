import { Router, type Request } from 'express';
import { asyncHandler, isFormBody, validate } from '@cm/platform';
import { callerOf } from '../auth/authenticated-user';
import { pathToken } from '../campaigns/path-token';
import { addContentSchema, editContentSchema } from './content-schemas';
import type { ContentService } from './content-service';

/**
 * Content of a campaign. Mounted after the campaign routes: `POST /campaign/:token` (edit campaign) must be
 * matched before the generic `POST /:campaign_token/:url_token` (edit content) could see
 * campaign_token = "campaign". Content tokens are 22 characters, so never the literal "content".
 */
export function contentRoutes(content: ContentService): Router {
  const router = Router();

  router.post(
    '/campaign/:campaign_token/content',
    asyncHandler(async (req, res) => {
      const campaignToken = pathToken(req.params.campaign_token, 'campaign');
      const input = validate(addContentSchema, req.body, 'content', { convert: isFormBody(req) });
      res.status(200).json(await content.add(callerOf(req), campaignToken, input));
    }),
  );

  const edit = asyncHandler(async (req: Request<{ campaign_token: string; url_token: string }>, res) => {
    const campaignToken = pathToken(req.params.campaign_token, 'campaign');
    const urlToken = pathToken(req.params.url_token, 'content');
    const input = validate(editContentSchema, req.body, 'content', { convert: isFormBody(req) });
    res.status(200).json(await content.setContentType(callerOf(req), campaignToken, urlToken, input.content_type));
  });
  router.post('/campaign/:campaign_token/:url_token', edit);
  // The API's documented path for edit content, without the /campaign segment.
  router.post('/:campaign_token/:url_token', edit);

  router.delete(
    '/campaign/:campaign_token/:url_token',
    asyncHandler(async (req, res) => {
      await content.remove(
        callerOf(req),
        pathToken(req.params.campaign_token, 'campaign'),
        pathToken(req.params.url_token, 'content'),
      );
      res.status(204).end();
    }),
  );

  return router;
}
