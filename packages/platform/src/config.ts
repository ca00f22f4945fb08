import Joi from 'joi';
import { OPERATOR_TOKEN_ADVICE, operatorTokenProblems } from './operator-token';

const productionOperatorToken: Joi.CustomValidator<string> = (value, helpers) => {
  const problems = operatorTokenProblems(value);
  if (problems.length === 0) return value;
  // never echo the token itself: the message lands in logs
  return helpers.message({ custom: `is not safe for production: ${problems.join('; ')}. ${OPERATOR_TOKEN_ADVICE}` });
};

declare const optional: unique symbol;
/** A setting that may stay unset: its key is optional in the derived config type. */
export type OptionalSetting<T> = Joi.AnySchema<T> & { readonly [optional]: true };

/** Narrows a setting's value type where Joi's own is too wide (`valid(...)` stays `string`, arrays stay `any[]`). */
export const setting = <T>(schema: Joi.Schema): Joi.AnySchema<T> => schema;
/** Marks a setting with no default: absent from the environment, it is absent from the config. */
export const optionalSetting = <T = string>(schema: Joi.Schema): OptionalSetting<T> => schema as OptionalSetting<T>;

type ValueOf<S> = S extends Joi.AnySchema<infer T> ? T : never;
type OptionalKeys<Table> = { [K in keyof Table]: Table[K] extends OptionalSetting<unknown> ? K : never }[keyof Table];

/**
 * The config type of a settings table (`{ NAME: Joi schema }`), so that each setting is declared once:
 * its schema says both how the environment is validated and what type the service sees.
 */
export type ConfigOf<Table> = {
  [K in Exclude<keyof Table, OptionalKeys<Table>>]: ValueOf<Table[K]>;
} & {
  [K in OptionalKeys<Table>]?: ValueOf<Table[K]>;
};

/** The Joi schema of a settings table, typed with the config it yields. */
export const configSchema = <Table extends Joi.SchemaMap>(table: Table): Joi.ObjectSchema<ConfigOf<Table>> =>
  Joi.object(table);

/** Settings every service shares (docs/operations.md, section 2.1). Each service extends this schema. */
export const baseConfigSchema = {
  NODE_ENV: setting<'development' | 'production' | 'test'>(
    Joi.string().valid('development', 'production', 'test').default('development'),
  ),
  // Joi's uri() refuses multi-host replica-set URLs (mongodb://a:27017,b:27017/?replicaSet=rs0); the driver parses the rest.
  MONGO_URL: Joi.string()
    .pattern(/^mongodb(\+srv)?:\/\/\S+$/)
    .default('mongodb://127.0.0.1:27017'),
  NATS_URL: Joi.string().default('nats://127.0.0.1:4222'),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly').default('info'),
  // production refuses placeholders and guessable tokens (operator-token.ts); elsewhere 16 characters do
  ADMIN_TOKEN: optionalSetting(
    Joi.string()
      .min(16)
      .when('NODE_ENV', {
        is: 'production',
        then: Joi.required().custom(productionOperatorToken),
        otherwise: Joi.optional(),
      }),
  ),
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(0).default(15000),
};

export class ConfigError extends Error {}

/**
 * Validates the environment once at start-up and fails fast with every problem listed.
 * Unknown variables are ignored (the environment holds much more than our settings).
 */
export function loadConfig<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv): T {
  const { value, error } = schema.validate(env, {
    abortEarly: false,
    allowUnknown: true,
    stripUnknown: true,
    convert: true,
  });
  if (error) {
    const problems = error.details.map((d) => `  ${d.path.join('.')}: ${d.message}`).join('\n');
    throw new ConfigError(`invalid configuration:\n${problems}`);
  }
  return value;
}
