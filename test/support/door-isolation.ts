import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSync } from '@swc/core';

/**
 * What only the door may hold, read from the source of every module: the import graph (which
 * module imports which, value imports only: a type import sends nothing) and the calls that change
 * a node, the account or the cluster. A module outside the door that imports one of the door's
 * modules, a mutating SDK command, a Kubernetes API class, or builds a mutating EC2 command or a
 * non-GET Kubernetes request is a violation.
 */

/** The door: its modules and its composition root. */
export const DOOR = [/^lambdas\/aws\/door\//, /^lambdas\/handlers\/door(-remedies)?\.ts$/];
const isDoor = (path: string) => DOOR.some((d) => d.test(path));

/** Services pod-doctor acts on: a command of theirs that is not a read is a change. */
const ACTED_ON = /^@aws-sdk\/client-(ec2|iam|eks|ecr|ecr-public|ssm|auto-scaling|sts)$/;
/** API verbs that only read (Describe…, Get…, List…); any other verb changes something. */
const READ_VERB = /^(Describe|Get|List|BatchGet|Query|Scan|Search|Simulate|Lookup|Validate|Head|Filter)[A-Z]/;
/** @kubernetes/client-node's API classes (CoreV1Api, PolicyV1Api, KubernetesObjectApi …): each can write. */
const KUBERNETES_API_CLASS = /Api$/;

export interface SourceModule {
  /** Path from the project root, with forward slashes. */
  readonly path: string;
  readonly source: string;
}

export interface Violation {
  readonly path: string;
  readonly what: string;
}

/** Every .ts module under `dirs` of the project. */
export function projectModules(root: string, dirs: readonly string[]): SourceModule[] {
  const out: SourceModule[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
        out.push({ path: relative(root, p).split('\\').join('/'), source: readFileSync(p, 'utf8') });
    }
  };
  for (const d of dirs) walk(join(root, d));
  return out;
}

type Node = { type: string; [k: string]: unknown };

const parsedSources = new Map<string, Node[]>();
/** A module's statements (parsed once per source text). */
function parsed(source: string): Node[] {
  let ast = parsedSources.get(source);
  if (!ast) {
    ast = parseSync(source, { syntax: 'typescript', target: 'es2022' }).body as unknown as Node[];
    parsedSources.set(source, ast);
  }
  return ast;
}

/** Every node of an AST, depth first. */
function* nodes(n: unknown): Generator<Node> {
  if (Array.isArray(n)) {
    for (const x of n) yield* nodes(x);
    return;
  }
  if (!n || typeof n !== 'object') return;
  const node = n as Node;
  if (typeof node.type === 'string') yield node;
  for (const [k, v] of Object.entries(node)) if (k !== 'span' && v && typeof v === 'object') yield* nodes(v);
}

/** A value import (named, default, namespace, or re-export) of one module: its source and the names. */
interface ValueImport {
  readonly source: string;
  readonly names: readonly string[];
}

const nameOf = (n: unknown) => (n as { value?: string } | undefined)?.value ?? '';

function valueImports(ast: Node[]): ValueImport[] {
  const out: ValueImport[] = [];
  for (const n of ast) {
    if (n.type === 'ImportDeclaration' && !n.typeOnly) {
      const specifiers = (n.specifiers as Node[]).filter((s) => !s.isTypeOnly);
      if (specifiers.length === 0 && (n.specifiers as Node[]).length > 0) continue;
      out.push({
        source: nameOf(n.source),
        names: specifiers.map((s) =>
          s.type === 'ImportNamespaceSpecifier' ? '*' : nameOf(s.imported) || nameOf(s.local),
        ),
      });
    } else if ((n.type === 'ExportNamedDeclaration' || n.type === 'ExportAllDeclaration') && n.source && !n.typeOnly) {
      const specifiers = ((n.specifiers as Node[] | undefined) ?? []).filter((s) => !s.isTypeOnly);
      out.push({
        source: nameOf(n.source),
        names: n.type === 'ExportAllDeclaration' ? ['*'] : specifiers.map((s) => nameOf(s.orig)),
      });
    }
  }
  // Dynamic import('…') anywhere in the module.
  for (const n of nodes(ast)) {
    if (n.type !== 'CallExpression' || (n.callee as Node).type !== 'Import') continue;
    const arg = ((n.arguments as { expression: Node }[])[0]?.expression ?? {}) as Node;
    out.push({ source: arg.type === 'StringLiteral' ? nameOf(arg) : '<computed>', names: ['*'] });
  }
  return out;
}

/** The project path a relative import names (`./x.js` → `dir/x.ts`), or the package name. */
function resolved(from: string, source: string): string {
  if (!source.startsWith('.')) return source;
  const p = relative(resolve('/'), resolve('/', dirname(from), source))
    .split('\\')
    .join('/');
  return p.replace(/\.js$/, '.ts');
}

/** The local names of @kubernetes/client-node's HttpMethod in a module. */
function kubernetesHttpMethod(ast: Node[]): Set<string> {
  const names = new Set<string>();
  for (const n of ast)
    if (n.type === 'ImportDeclaration' && nameOf(n.source).startsWith('@kubernetes/client-node'))
      for (const s of n.specifiers as Node[])
        if ((nameOf(s.imported) || nameOf(s.local)) === 'HttpMethod') names.add(nameOf(s.local));
  return names;
}

/** What a module outside the door must not do, as violations. */
function outsideDoor(m: SourceModule, ast: Node[]): Violation[] {
  const v: Violation[] = [];
  const httpMethod = kubernetesHttpMethod(ast);
  const add = (what: string) => v.push({ path: m.path, what });
  for (const i of valueImports(ast)) {
    const target = resolved(m.path, i.source);
    if (isDoor(target)) add(`imports the door's module ${target}`);
    if (target === '<computed>') add('imports a module by a computed name');
    if (ACTED_ON.test(target))
      for (const name of i.names) {
        if (name === '*') add(`imports all of ${target}`);
        else if (/Command$/.test(name) && !READ_VERB.test(name)) add(`imports ${name} from ${target}`);
      }
    if (target.startsWith('@kubernetes/client-node'))
      for (const name of i.names.filter((x) => KUBERNETES_API_CLASS.test(x) || x === '*'))
        add(`imports ${name === '*' ? 'all' : name} of ${target}`);
  }
  for (const n of nodes(ast)) {
    // EC2 Query commands: command('Action') of a verb that is not a read, or a subclass of Ec2Command.
    if (n.type === 'CallExpression' && nameOf(n.callee) === 'command') {
      const arg = ((n.arguments as { expression: Node }[])[0]?.expression ?? {}) as Node;
      const action = arg.type === 'StringLiteral' ? nameOf(arg) : '<computed>';
      if (!READ_VERB.test(action)) add(`builds the EC2 command ${action}`);
    }
    if (n.type === 'ClassDeclaration' || n.type === 'ClassExpression') {
      const sup = n.superClass as Node | undefined;
      if (sup && nameOf(sup) === 'Ec2Command' && !/^lambdas\/aws\/ec2\/commands\.ts$/.test(m.path))
        add('subclasses Ec2Command outside the command list');
    }
    // A Kubernetes request of any method but GET.
    if (n.type === 'MemberExpression' && httpMethod.has(nameOf(n.object))) {
      const method = nameOf(n.property);
      if (method !== 'GET') add(`sends a Kubernetes ${method || 'computed-method'} request`);
    }
  }
  return v;
}

/** Every violation of the door's isolation among `modules`. */
export function doorIsolationViolations(modules: readonly SourceModule[]): Violation[] {
  return modules
    .filter((m) => !isDoor(m.path))
    .flatMap((m) => {
      return outsideDoor(m, parsed(m.source));
    });
}

/** The modules a module reaches through its value imports (relative ones, within `modules`). */
export function closure(entry: string, modules: readonly SourceModule[]): Set<string> {
  const byPath = new Map(modules.map((m) => [m.path, m]));
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const p = todo.pop() as string;
    const m = byPath.get(p);
    if (!m || seen.has(p)) continue;
    seen.add(p);
    for (const i of valueImports(parsed(m.source))) if (i.source.startsWith('.')) todo.push(resolved(p, i.source));
  }
  return seen;
}
