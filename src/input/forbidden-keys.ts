// Keys that name JavaScript's object machinery, not data. Written with obj[key] = value, '__proto__' replaces
// the object's prototype, and a nested write through it (a CSV column '__proto__.status') lands on
// Object.prototype, which every object of the process inherits: every offer without a status would take it,
// and libraries (pino, prom-client) break. So no key read from input (catalogue files, config files, the
// marketplace's answers) may be one of these: each parser refuses them, saying where, by this one rule.

/** Keys input may not use, at any depth. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** What a person reads about a forbidden key: `what` is what the key names ('field', 'column', 'config key'). */
export function forbiddenKeyMessage(key: string, what = 'field'): string {
  return (
    `'${key}' cannot be a ${what} name: JavaScript reserves it (${[...FORBIDDEN_KEYS].join(', ')}) and it is ` +
    'never read; rename or remove it'
  );
}

export type KeyPath = readonly (string | number)[];

/**
 * The paths of the forbidden keys in a parsed value (JSON, YAML), an object's own keys before those nested in
 * it. Walks with a stack of its own, and builds a path only for a key it reports: input may be nested deeper
 * than the call stack allows.
 */
export function forbiddenKeyPaths(value: unknown): KeyPath[] {
  if (!holdsForbiddenKey(value)) return [];
  type Step = { readonly value: unknown; readonly key?: string | number; readonly parent?: Step };
  const pathOf = (step: Step, key: string): KeyPath => {
    const path: (string | number)[] = [key];
    for (let s: Step | undefined = step; s?.key !== undefined; s = s.parent) path.push(s.key);
    return path.reverse();
  };
  const found: KeyPath[] = [];
  const stack: Step[] = [{ value }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const v = step.value;
    if (typeof v !== 'object' || v === null) continue;
    const children: Step[] = [];
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) children.push({ value: v[i], key: i, parent: step });
    else
      for (const key of Object.keys(v)) {
        if (isForbiddenKey(key)) found.push(pathOf(step, key));
        else children.push({ value: (v as Record<string, unknown>)[key], key, parent: step });
      }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return found;
}

/** Whether a parsed value holds a forbidden key: the common answer, no, found with nothing allocated per value. */
function holdsForbiddenKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (const x of v) if (typeof x === 'object' && x !== null) stack.push(x);
      continue;
    }
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if (isForbiddenKey(key)) return true;
      const x = (v as Record<string, unknown>)[key];
      if (typeof x === 'object' && x !== null) stack.push(x);
    }
  }
  return false;
}

/**
 * Whether a JSON, YAML or CSV text may hold a forbidden key: false only when none of them is written out and
 * nothing is escaped (a key may spell one with \\u or \\x escapes). Spares walking what cannot hold one.
 */
export function textMayHoldForbiddenKey(text: string): boolean {
  if (text.includes('\\')) return true;
  for (const key of FORBIDDEN_KEYS) if (text.includes(key)) return true;
  return false;
}

/**
 * Sets an own property of an object built from input, never its prototype's: a forbidden key is the caller's
 * to refuse first, and this throws on one that got through.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (isForbiddenKey(key))
    throw new TypeError(`refused to set the key '${key}' from input: ${forbiddenKeyMessage(key)}`);
  obj[key] = value;
}

/** An own property of an object built from input; undefined when only its prototype has one. */
export function getOwn(obj: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
