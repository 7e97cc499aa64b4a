/**
 * The request an http operation compiles to: plain JSON the executor sends as is. The URL is
 * built from the declared base URL and the document's path template; nothing from the model
 * becomes a URL, a header name or a method.
 */

/** Paging state the shaper needs to issue the next cursor. */
export interface HttpPaging {
  style: 'offset' | 'page' | 'cursor' | 'link';
  limit: number;
  /** Offset of this page (offset and page styles). */
  offset: number;
  nextPointer?: string;
  /** Query parameters of this request taken from the previous page's next link (link style). */
  carried?: string[];
}

export interface HttpRequest {
  method: string;
  /** Absolute URL on the base URL's origin, query included (credentials are added at send). */
  url: string;
  /** Header name → value (lowercase names; never authentication headers). */
  headers: Record<string, string>;
  /** The JSON body, when the operation takes one. */
  body?: unknown;
  paging?: HttpPaging;
}
