import type { Command } from '../command';
import { accountCreate } from './account-create';
import { bucketsDropExpired } from './buckets-drop-expired';
import { campaignReachCommand } from './campaign-reach';
import { campaignReportCommand } from './campaign-report';
import { keysCreate } from './keys-create';
import { keysList } from './keys-list';
import { keysRevoke } from './keys-revoke';
import { pipelineStatus } from './pipeline-status';
import { registryReconcile } from './registry-reconcile';
import { rollupsRebuild } from './rollups-rebuild';
import { rollupsStatus } from './rollups-status';
import { tokensRekey } from './tokens-rekey';

/** Every command, in the order help lists them. */
export const ALL_COMMANDS: Command[] = [
  accountCreate,
  keysCreate,
  keysList,
  keysRevoke,
  pipelineStatus,
  bucketsDropExpired,
  rollupsStatus,
  rollupsRebuild,
  tokensRekey,
  registryReconcile,
  campaignReachCommand,
  campaignReportCommand,
];
