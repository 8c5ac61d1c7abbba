// Compile-time checks of the declarations' narrowing (never run): `open`'s `kind` and
// `ZarrArray.is` give reads the typed array of the array's data type, and what should not
// compile does not (each `@ts-expect-error` fails the build if its line compiles).
import { type Group, open, slice, type ZarrArray } from "zarr-wasm";

export async function narrowing(url: string): Promise<void> {
  const arr = await open(url, { kind: "array", path: "0" });
  const shape: number[] = arr.shape;
  if (arr.is("uint16")) {
    const pixels: Uint16Array = (await arr.get([0, 0, slice(0, 4), null])).data;
    for await (const part of arr.iterate()) {
      const values: Uint16Array = part.data;
      void values;
    }
    const chunk: Uint16Array = (await arr.getChunk([0, 0, 0, 0])).data;
    void [pixels, chunk];
  }
  const numbers = await open(url, { kind: "array" });
  if (numbers.is("number")) {
    const first: number = (await numbers.get()).data[0];
    void first;
  }
  const bigints = await open(url, { kind: "array" });
  if (bigints.is("bigint")) {
    const first: bigint = (await bigints.get()).data[0];
    void first;
  }
  const strings = await open(url, { kind: "array" });
  if (strings.is("string")) {
    const first: string = (await strings.get()).data[0];
    void first;
  }
  const group: Group = await open(url, { kind: "group" });
  const child: ZarrArray = await group.open("0", { kind: "array" });
  const either = await open(url);
  // @ts-expect-error: without `kind`, a node may be a group, which has no shape
  void either.shape;
  // @ts-expect-error: an array of unknown data type reads a union, not a Uint16Array
  const unknown: Uint16Array = (await child.get()).data;
  // @ts-expect-error: open has no option "pth"
  await open(url, { pth: "0" });
  // @ts-expect-error: kind is "array" or "group"
  await open(url, { kind: "arrays" });
  void [shape, unknown];
}
