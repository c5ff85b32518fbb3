/** `scheme://user:password@host` -> `scheme://***@host`, wherever such a URL appears in text. */
export function maskUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
}
