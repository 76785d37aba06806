// Request bodies of the Messages compaction API (strict: unknown fields are 400).
import { z } from "zod";
import { ageSchema, countSchema, policyDraftSchema, preparationChoiceSchema } from "./policy";

export const putPolicyBodySchema = z.strictObject({
  policy: policyDraftSchema,
  expectedRevision: countSchema,
  preparation: preparationChoiceSchema.optional(),
});

export const analyzeBodySchema = z.strictObject({ age: ageSchema });
export const runBodySchema = z.strictObject({ expectedRevision: countSchema });
export const cancelBodySchema = z.strictObject({ operationId: z.string().min(1).max(128) });

export type PutPolicyBody = z.infer<typeof putPolicyBodySchema>;
export type AnalyzeBody = z.infer<typeof analyzeBodySchema>;
export type RunBody = z.infer<typeof runBodySchema>;
export type CancelBody = z.infer<typeof cancelBodySchema>;
export type AcceptedOperation = { operationId: string };
