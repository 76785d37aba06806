// Writes app/favicon.ico from app/icon.svg (the product mark): Chromium draws
// the SVG at 16, 32 and 48 px and the PNGs go into one ICO file. Run it after
// changing the mark: npx tsx scripts/make-favicon.ts
import fs from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";

const SIZES = [16, 32, 48];

function ico(pngs: { size: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  const entries: Buffer[] = [];
  let offset = 6 + 16 * pngs.length;
  for (const { size, data } of pngs) {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size % 256, 0);
    entry.writeUInt8(size % 256, 1);
    entry.writeUInt8(0, 2);
    entry.writeUInt8(0, 3);
    entry.writeUInt16LE(1, 4);
    entry.writeUInt16LE(32, 6);
    entry.writeUInt32LE(data.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += data.length;
    entries.push(entry);
  }
  return Buffer.concat([header, ...entries, ...pngs.map((p) => p.data)]);
}

async function main(): Promise<void> {
  const svg = fs.readFileSync(path.join("app", "icon.svg"), "utf8");
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const pngs: { size: number; data: Buffer }[] = [];
    for (const size of SIZES) {
      const page = await browser.newPage({ viewport: { width: size, height: size } });
      const sized = svg.replace(/width="\d+" height="\d+"/, `width="${size}" height="${size}"`);
      await page.setContent(`<style>html,body{margin:0;background:transparent}</style>${sized}`);
      pngs.push({ size, data: await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }) });
      await page.close();
    }
    fs.writeFileSync(path.join("app", "favicon.ico"), ico(pngs));
    console.log(`app/favicon.ico: ${SIZES.join(", ")} px`);
  } finally {
    await browser.close();
  }
}

void main();
