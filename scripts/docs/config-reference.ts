import { z } from 'zod';
import { podDoctorConfigSchema } from '../../lib/config.js';
import { type PropRow, propsReferenceRows } from './props-reference.js';

/**
 * The configuration reference (docs/configuration.md), generated: the construct props from their
 * TypeScript declarations (type, TSDoc summary, `@default`; props-reference.ts), and the cdk.json keys
 * from the zod schema `podDoctorConfigSchema` in lib/config.ts (type, allowed values and bounds, the
 * default the schema fills in), each with the construct prop it stands for.
 * test/unit/config-reference.test.ts fails when the page differs from what these generate.
 */

interface JsonSchema {
  readonly type?: string | string[];
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minItems?: number;
  readonly properties?: Record<string, JsonSchema>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly additionalProperties?: JsonSchema | boolean;
  readonly anyOf?: readonly JsonSchema[];
}

/** One cdk.json key of the reference (Markdown cells). */
export interface KeyRow {
  /** The key path, e.g. `clusters[].name`, `limits.nodeCooldownMinutes` (plain text). */
  readonly key: string;
  readonly type: string;
  readonly default: string;
  /** The construct prop the key stands for (its path), when there is one. */
  readonly prop: string | undefined;
}

const code = (s: string) => `\`${s.replaceAll('|', '\\|')}\``;

function typeOf(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (s.enum) return s.enum.map((v) => code(String(v))).join(' \\| ');
  if (s.const !== undefined) return code(JSON.stringify(s.const));
  const bounds = [
    s.minimum !== undefined && `≥ ${s.minimum}`,
    s.exclusiveMinimum !== undefined && `> ${s.exclusiveMinimum}`,
    s.maximum !== undefined && `≤ ${s.maximum}`,
  ].filter(Boolean);
  if (s.type === 'array')
    return `list of ${s.items ? typeOf(s.items) : 'values'}${s.minItems ? ` (≥ ${s.minItems})` : ''}`;
  if (s.type === 'object' && s.propertyNames) return `map of ${typeOf(s.propertyNames)} → ${typeOf(additional(s))}`;
  if (s.type === 'object') return 'object';
  const base = s.format ?? (Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any'));
  const pattern = s.pattern && !s.format ? ` matching ${code(s.pattern)}` : '';
  return `${base}${pattern}${bounds.length ? ` (${bounds.join(', ')})` : ''}`;
}

const additional = (s: JsonSchema): JsonSchema =>
  typeof s.additionalProperties === 'object' ? s.additionalProperties : {};

function defaultOf(s: JsonSchema, required: boolean): string {
  if (s.default !== undefined) return code(JSON.stringify(s.default));
  return required ? 'required' : 'none';
}

/**
 * The construct prop a cdk.json key stands for: the same path, or the path without the `limits.`
 * group and without the unit cdk.json spells out (`incidentWindowMinutes` → `incidentWindow`, a
 * Duration; `historyRetentionDays` → `historyRetention`; `routingKeySecretArn` → `routingKey`, an ISecret).
 */
export function propOfKey(key: string, props: readonly PropRow[]): string | undefined {
  const paths = new Set(props.map((p) => p.path));
  const ungrouped = key.replace(/^limits\./, '');
  return [key, ungrouped, ungrouped.replace(/(Minutes|Days|SecretArn)$/, '')].find((k) => paths.has(k));
}

function keyRows(s: JsonSchema, key: string, required: boolean, props: readonly PropRow[]): KeyRow[] {
  const own: KeyRow = { key, type: typeOf(s), default: defaultOf(s, required), prop: propOfKey(key, props) };
  const item = s.type === 'array' && s.items?.type === 'object' ? s.items : undefined;
  const object = s.type === 'object' && s.properties ? s : item;
  if (!object?.properties) return [own];
  const prefix = item ? `${key}[]` : key;
  const children = Object.entries(object.properties).flatMap(([name, child]) =>
    keyRows(child, `${prefix}.${name}`, object.required?.includes(name) ?? false, props),
  );
  return [own, ...children];
}

/** The cdk.json keys, in the schema's order. */
export function configKeyRows(props: readonly PropRow[] = propsReferenceRows()): KeyRow[] {
  const schema = z.toJSONSchema(podDoctorConfigSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return Object.entries(schema.properties ?? {}).flatMap(([name, s]) =>
    keyRows(s, name, schema.required?.includes(name) ?? false, props),
  );
}

const cell = (s: string) => s.replaceAll('|', '\\|');

/** A `@default` as a cell: `- text` (a description, by the CDK convention) as text, a value as code. */
function defaultCell(p: PropRow): string {
  if (p.default === undefined) return p.defaultInParent ? "in the parent's default" : p.optional ? '' : 'required';
  return p.default.startsWith('- ') ? cell(p.default.slice(2)) : code(p.default);
}

/** The generated Markdown: the construct props, then the cdk.json keys. */
export function configReferenceMarkdown(): string {
  const props = propsReferenceRows();
  return [
    '### Construct props (`PodDoctorProps`)',
    '',
    '| prop | type | default | meaning |',
    '|---|---|---|---|',
    ...props.map((p) => `| ${code(p.path)} | ${code(p.type)} | ${defaultCell(p)} | ${cell(p.summary)} |`),
    '',
    '### cdk.json keys (`pod-doctor` context)',
    '',
    '| key | type | default | prop |',
    '|---|---|---|---|',
    ...configKeyRows(props).map(
      (r) => `| ${code(r.key)} | ${r.type} | ${r.default} | ${r.prop ? code(r.prop) : '—'} |`,
    ),
  ].join('\n');
}
