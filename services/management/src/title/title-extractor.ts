import { Parser } from 'htmlparser2';

/** Longest title kept; longer ones are cut (a title is a label, not content). */
export const TITLE_MAX_LENGTH = 500;

function clean(text: string | undefined): string {
  // Control characters out, runs of whitespace to one space.
  const flat = (text ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return [...flat].slice(0, TITLE_MAX_LENGTH).join('');
}

/**
 * Streams HTML and finds the page's title: the <title> element, or the og:title meta when there is
 * no non-empty <title>. Entities are decoded by htmlparser2. `done` turns true once reading more
 * cannot change the answer (a title was found, or the head ended), so the caller can stop reading.
 */
export class TitleExtractor {
  done = false;
  private title: string | undefined;
  private titleText: string | undefined;
  private ogTitle: string | undefined;
  private readonly parser: Parser;

  constructor() {
    this.parser = new Parser(
      {
        // Once done, the rest of a chunk already handed to the parser is ignored.
        onopentag: (name, attribs) => {
          if (this.done) return;
          if (name === 'title' && this.titleText === undefined) this.titleText = '';
          if (name === 'meta' && this.ogTitle === undefined) {
            const key = (attribs.property ?? attribs.name ?? '').toLowerCase();
            if (key === 'og:title' && attribs.content !== undefined) this.ogTitle = attribs.content;
          }
          if (name === 'body') this.done = true;
        },
        ontext: (text) => {
          if (this.done) return;
          if (this.titleText !== undefined && this.title === undefined && this.titleText.length < TITLE_MAX_LENGTH * 4)
            this.titleText += text;
        },
        onclosetag: (name) => {
          if (this.done) return;
          if (name === 'title' && this.title === undefined && this.titleText !== undefined) {
            this.title = this.titleText;
            if (clean(this.title)) this.done = true;
          }
          if (name === 'head') this.done = true;
        },
      },
      { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    );
  }

  write(html: string): void {
    if (!this.done) this.parser.write(html);
  }

  /** The title so far ("" when none); an unclosed <title> at the end of input counts. */
  result(): string {
    if (!this.done) this.parser.end();
    return clean(this.title ?? this.titleText) || clean(this.ogTitle);
  }
}
