import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldProblem, HttpProblem, validationProblem } from './http-problem.js';

describe('HttpProblem', () => {
  it('takes its status from the contract’s problem kinds', () => {
    expect(new HttpProblem('not-found', 'gone').status).toBe(404);
    expect(new HttpProblem('conflict', 'taken').status).toBe(409);
  });

  it('summarizes validation errors in one sentence, never with a doubled full stop', () => {
    expect(fieldProblem('/token', 'is not a valid reset token. Ask for a new link.').detail).toBe(
      '/token is not a valid reset token. Ask for a new link.',
    );
    const result = z.object({ limit: z.number(), name: z.string() }).safeParse({ limit: 'x' });
    if (result.success) throw new Error('expected issues');
    const problem = validationProblem(result.error, 'parameter');
    expect(problem.detail).toMatch(/^2 problems: limit .+; name is required\.$/);
    expect(problem.detail).not.toMatch(/\.\.$/);
    expect(problem.errors).toHaveLength(2);
  });
});
