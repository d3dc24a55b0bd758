import { z } from 'zod';
import { unicodeTextProblem, writtenTextProblem } from './written-text.js';

function refinedBy<T extends z.ZodType<string, z.ZodTypeDef, unknown>>(
  schema: T,
  problemOf: (value: string) => string | undefined,
): z.ZodEffects<T> {
  return schema.superRefine((value, context) => {
    const problem = problemOf(value);
    if (problem !== undefined) context.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  });
}

/**
 * A field of text a person writes (SPEC §3.7; the rule is `writtenTextProblem`): no NUL or other control
 * characters, no lone surrogates, no bidirectional overrides. Wrap the field's whole string schema, trimming
 * included, so the rule judges the value that is kept: `writtenText(z.string().trim().min(1).max(64))`.
 * The issue lands on the field itself, so a 400 names it (`errors[].pointer` or `errors[].parameter`).
 */
export function writtenText<T extends z.ZodType<string, z.ZodTypeDef, unknown>>(schema: T): z.ZodEffects<T> {
  return refinedBy(schema, writtenTextProblem);
}

/** A field that must be Unicode text but may hold anything else: new passwords (see `written-text.ts`). */
export function unicodeText<T extends z.ZodType<string, z.ZodTypeDef, unknown>>(schema: T): z.ZodEffects<T> {
  return refinedBy(schema, unicodeTextProblem);
}
