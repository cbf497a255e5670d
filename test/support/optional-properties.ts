/**
 * Every optional property a user can reach from the public surface should read `?: T | undefined`, so
 * that a project compiled with `exactOptionalPropertyTypes` may pass `undefined` for an option it
 * leaves out (as `{ ...defaults, maxWait: maybe }` does). Walked from each entry point's exports through
 * every type they name (interfaces, aliases, the parameters and results of exported functions and
 * classes' public members), into any file of src/; test/build/api-report.test.ts holds the surface to
 * it, and test/build/package-install.test.ts compiles such a consumer against the packed package.
 */
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ENTRY_POINTS } from '../../scripts/api-report.js';
import { repo } from './module-graph.js';

/**
 * `file:line Owner.property` for each optional property whose type does not take undefined, and how
 * many optional properties the walk checked (so that a walk that reaches nothing cannot pass).
 */
export function optionalPropertiesWithoutUndefined(built: ts.Program): { offenders: string[]; checked: number } {
  const checker = built.getTypeChecker();
  const seen = new Set<ts.Node>();
  const found: string[] = [];
  let checked = 0;
  const queue: ts.Node[] = [];
  const inSource = (node: ts.Node) => node.getSourceFile().fileName.startsWith(join(repo, 'src'));
  const enqueue = (symbol: ts.Symbol | undefined) => {
    if (symbol === undefined) return;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    for (const declaration of target.declarations ?? []) {
      if (inSource(declaration) && !seen.has(declaration)) {
        seen.add(declaration);
        queue.push(declaration);
      }
    }
  };
  const takesUndefined = (node: ts.TypeNode) => {
    const type = checker.getTypeFromTypeNode(node);
    const parts = type.isUnion() ? type.types : [type];
    return parts.some((part) => part.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Any | ts.TypeFlags.Unknown));
  };
  const ownerOf = (node: ts.Node): string => {
    for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
      if ((ts.isInterfaceDeclaration(at) || ts.isTypeAliasDeclaration(at) || ts.isClassDeclaration(at)) && at.name) {
        return at.name.text;
      }
    }
    return '(anonymous)';
  };
  const visit = (node: ts.Node): void => {
    // Bodies and initialisers are implementation: the types they name are not part of the surface.
    if (ts.isBlock(node)) return;
    if (
      (ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)) &&
      ts.getCombinedModifierFlags(node) & ts.ModifierFlags.NonPublicAccessibilityModifier
    )
      return;
    if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node)) && node.questionToken && node.type) {
      checked++;
      if (!takesUndefined(node.type)) {
        const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart());
        found.push(
          `${relative(repo, node.getSourceFile().fileName)}:${line + 1} ${ownerOf(node)}.${node.name.getText()}`,
        );
      }
    }
    if (ts.isTypeReferenceNode(node)) enqueue(checker.getSymbolAtLocation(node.typeName));
    if (ts.isExpressionWithTypeArguments(node)) enqueue(checker.getSymbolAtLocation(node.expression));
    if (ts.isTypeQueryNode(node)) enqueue(checker.getSymbolAtLocation(node.exprName));
    if (ts.isVariableDeclaration(node)) {
      if (node.type) visit(node.type);
      return;
    }
    if (ts.isPropertyDeclaration(node) && node.initializer) {
      if (node.type) visit(node.type);
      return;
    }
    ts.forEachChild(node, visit);
  };
  for (const { file } of ENTRY_POINTS) {
    const source = built.getSourceFile(join(repo, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${file} could not be read`);
    for (const exported of checker.getExportsOfModule(module)) enqueue(exported);
  }
  while (queue.length > 0) visit(queue.shift() as ts.Node);
  return { offenders: found.sort(), checked };
}
