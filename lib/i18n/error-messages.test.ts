import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/query/fetch-json";
import { CLIENT_ERROR_CODES, clientErrorCode, errorMessageKey, FEATURE_ERROR_CODES } from "./error-messages";
import { loadMessages, type Catalog } from "./load-messages";
import { LOCALES } from "./routing";

const at = (catalog: Catalog, key: string): unknown => key.split(".").reduce<unknown>((node, part) => (node as Catalog | undefined)?.[part], catalog);

describe("error-code messages", () => {
  it.each(LOCALES)("[TPR-UI-15] %s has a sentence for every API error code and every per-feature variant", (locale) => {
    const catalog = loadMessages(locale);
    for (const code of CLIENT_ERROR_CODES) expect(typeof at(catalog, `apiErrors.${errorMessageKey(code)}`), code).toBe("string");
    for (const [feature, codes] of Object.entries(FEATURE_ERROR_CODES)) {
      for (const code of codes) expect(typeof at(catalog, `apiErrors.byFeature.${feature}.${code}`), `${feature}.${code}`).toBe("string");
    }
    expect(Object.keys(at(catalog, "apiErrors.codes") as Catalog).sort()).toEqual([...CLIENT_ERROR_CODES].sort());
  });

  it("reads the code of an ApiError, a known code string, or falls back to unknown_error", () => {
    const busy = new ApiError({ status: 503, code: "maintenance_busy", message: "busy", body: null, retryAfterSeconds: null });
    expect(clientErrorCode(busy)).toBe("maintenance_busy");
    expect(clientErrorCode("network_error")).toBe("network_error");
    expect(clientErrorCode("brand_new_code")).toBe("unknown_error");
    expect(clientErrorCode(new Error("boom"))).toBe("unknown_error");
    expect(errorMessageKey("operation_active", "compaction")).toBe("byFeature.compaction.operation_active");
    expect(errorMessageKey("operation_active")).toBe("codes.operation_active");
    expect(errorMessageKey("not_found", "checkpoints")).toBe("codes.not_found");
  });
});
