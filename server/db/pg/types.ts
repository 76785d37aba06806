// How result columns of our statements come back (node-postgres' per-query
// `types`; the checkpoint saver's queries keep the driver's). Text stays
// text: json columns, timestamps and numeric come back exactly as the
// server printed them (message metadata must never be re-serialized).
// Integers become numbers: the schema's bigint columns hold epoch
// milliseconds and row ids, far below 2^53.
const BOOL = 16;
const INT8 = 20;
const INT2 = 21;
const INT4 = 23;
const OID = 26;
const FLOAT4 = 700;
const FLOAT8 = 701;

const asText = (text: string) => text;
const asInteger = (text: string) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`integer column value ${text} is beyond 2^53`);
  return value;
};

export const resultTypes = {
  getTypeParser(oid: number): (text: string) => unknown {
    switch (oid) {
      case BOOL:
        return (text) => text === "t";
      case INT8:
      case INT2:
      case INT4:
      case OID:
        return asInteger;
      case FLOAT4:
      case FLOAT8:
        return Number;
      default:
        return asText;
    }
  },
};
