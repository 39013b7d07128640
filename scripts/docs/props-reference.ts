import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import type * as TS from '../../node_modules/@microsoft/api-extractor/node_modules/typescript/lib/typescript.js';

/**
 * The construct props as their TypeScript declarations state them: every property of
 * `PodDoctorProps` (and of the interfaces and object types its properties name, such as `PodDoctorCluster`), with its
 * type, its TSDoc summary and its `@default` tag. The project's own TypeScript (7) has no JavaScript
 * API, so the declarations are parsed with the TypeScript compiler API that api-extractor (the public
 * API report) bundles; syntax only, no type checking.
 */

/** Files whose interfaces the reference documents: the props and the interfaces they name. */
export const PROPS_SOURCES = [
  'lib/pod-doctor-props.ts',
  'lib/constructs/channels/channel-props.ts',
  'lambdas/core/incident/ingest-limits.ts',
] as const;

/** The interface the reference starts from. */
export const PROPS_ROOT = 'PodDoctorProps';

/** One documented property. */
export interface PropRow {
  /** Dotted path: `clusters[].name` (an element of a list), `channels.slack`. */
  readonly path: string;
  /** The declared type, as written. */
  readonly type: string;
  /** The `@default` tag's text, when the property has one. */
  readonly default: string | undefined;
  /** Whether the property may be left out (`?`, or a field of a `Partial<…>`). */
  readonly optional: boolean;
  /** A field of a `Partial<…>` property: its default is in the property's `@default`. */
  readonly defaultInParent: boolean;
  /** The TSDoc summary. */
  readonly summary: string;
}

/** Thrown when a documented interface is not declared in {@link PROPS_SOURCES}. */
export class MissingDeclarationError extends Error {
  override readonly name = 'MissingDeclarationError';
}

const ts: typeof TS = createRequire(createRequire(import.meta.url).resolve('@microsoft/api-extractor'))('typescript');

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The interfaces declared in the source files, by name. */
function declarations(): Map<string, TS.InterfaceDeclaration> {
  const found = new Map<string, TS.InterfaceDeclaration>();
  for (const file of PROPS_SOURCES) {
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of source.statements)
      if (ts.isInterfaceDeclaration(statement)) found.set(statement.name.text, statement);
  }
  return found;
}

function summaryOf(member: TS.PropertySignature): string {
  const docs = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
  return oneLine(docs.map((d) => ts.getTextOfJSDocComment(d.comment) ?? '').join(' '));
}

function defaultOf(member: TS.PropertySignature): string | undefined {
  const tag = ts.getJSDocTags(member).find((t) => t.tagName.text === 'default');
  return tag && oneLine(ts.getTextOfJSDocComment(tag.comment) ?? '');
}

/** The interface a property's type names (`X`, `X[]`, `readonly X[]`, `Partial<X>`), and how. */
function named(type: TS.TypeNode | undefined): { name: string; list: boolean; partial: boolean } | undefined {
  if (!type) return undefined;
  if (ts.isTypeOperatorNode(type)) return named(type.type);
  if (ts.isArrayTypeNode(type)) {
    const inner = named(type.elementType);
    return inner && { ...inner, list: true };
  }
  if (!ts.isTypeReferenceNode(type) || !ts.isIdentifier(type.typeName)) return undefined;
  if (type.typeName.text === 'Partial' && type.typeArguments?.length === 1) {
    const inner = named(type.typeArguments[0]);
    return inner && { ...inner, partial: true };
  }
  return { name: type.typeName.text, list: false, partial: false };
}

function rowsOf(
  members: TS.NodeArray<TS.TypeElement>,
  prefix: string,
  partial: boolean,
  all: Map<string, TS.InterfaceDeclaration>,
): PropRow[] {
  return members.filter(ts.isPropertySignature).flatMap((member) => {
    const path = `${prefix}${member.name.getText()}`;
    const own: PropRow = {
      path,
      type: oneLine(member.type?.getText() ?? 'any').replace(/\breadonly /g, ''),
      default: defaultOf(member),
      optional: partial || member.questionToken !== undefined,
      defaultInParent: partial,
      summary: summaryOf(member),
    };
    if (member.type && ts.isTypeLiteralNode(member.type))
      return [own, ...rowsOf(member.type.members, `${path}.`, false, all)];
    const ref = named(member.type);
    const child = ref && all.get(ref.name);
    if (!ref || !child) return [own];
    return [own, ...rowsOf(child.members, `${path}${ref.list ? '[]' : ''}.`, ref.partial, all)];
  });
}

/** Every property of {@link PROPS_ROOT} and of the interfaces it names, in declaration order. */
export function propsReferenceRows(): PropRow[] {
  const all = declarations();
  const root = all.get(PROPS_ROOT);
  if (!root) throw new MissingDeclarationError(`${PROPS_ROOT} is not declared in ${PROPS_SOURCES.join(', ')}`);
  return rowsOf(root.members, '', false, all);
}
