/** Every function's length and parameter count in a TypeScript source, for the source-shape test. */
import ts from 'typescript';

/** One function as the shape test measures it: its name (as the source names it), body lines and parameters. */
export interface FunctionShape {
  name: string;
  lines: number;
  parameters: number;
}

type FunctionNode = ts.FunctionLikeDeclaration & { body: ts.ConciseBody };

function isMeasured(node: ts.Node): node is FunctionNode {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)) &&
    node.body !== undefined
  );
}

/** The name a reader would look for: the function's own, else the variable, property or call it is given to. */
function nameOf(node: FunctionNode, source: ts.SourceFile, enclosing: string | undefined): string {
  const own = ts.isConstructorDeclaration(node) ? 'constructor' : node.name?.getText(source);
  const owner = node.parent;
  const given =
    own ??
    (ts.isVariableDeclaration(owner) || ts.isPropertyAssignment(owner) || ts.isPropertyDeclaration(owner)
      ? owner.name.getText(source)
      : ts.isCallExpression(owner) || ts.isNewExpression(owner)
        ? `(given to ${ts.isNewExpression(owner) ? 'new ' : ''}${owner.expression.getText(source).slice(0, 40)})`
        : ts.isReturnStatement(owner)
          ? '(returned)'
          : '(anonymous)');
  const inClass = ts.isClassLike(owner) ? `${owner.name?.getText(source) ?? '(class)'}.` : '';
  return enclosing === undefined ? `${inClass}${given}` : `${enclosing} > ${inClass}${given}`;
}

/**
 * Each function's own span, from the first line of its body to the last (a nested function is measured on
 * its own, and its lines count within its outer function too: an outer function is as long as it reads).
 * Names repeated in one file get `#2`, `#3` in source order, so every entry is a key.
 */
export function functionShapes(text: string, fileName = 'sample.ts'): FunctionShape[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const shapes: FunctionShape[] = [];
  const line = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node, enclosing: string | undefined): void => {
    let inner = enclosing;
    if (isMeasured(node)) {
      inner = nameOf(node, source, enclosing);
      shapes.push({
        name: inner,
        lines: line(node.body.getEnd()) - line(node.body.getStart(source)) + 1,
        parameters: node.parameters.filter((parameter) => parameter.name.getText(source) !== 'this').length,
      });
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, undefined);
  const seen = new Map<string, number>();
  return shapes.map((shape) => {
    const count = (seen.get(shape.name) ?? 0) + 1;
    seen.set(shape.name, count);
    return count === 1 ? shape : { ...shape, name: `${shape.name}#${count}` };
  });
}
