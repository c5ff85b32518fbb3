/**
 * Slack's Block Kit limits, checked by the renderers' tests and enforced by the Slack emulator in test/:
 * a message that breaks one is rejected by Slack (`invalid_blocks`), so it must never be built.
 */
export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
  actionsElements: 25,
  contextElements: 10,
  messageText: 40_000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3000,
} as const;

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'object' && value ? String((value as Json).text ?? '') : '');

function checkElement(el: Json, where: string, problems: string[]): void {
  const max = (what: string, length: number, limit: number) => {
    if (length > limit) problems.push(`${where}: ${what} is ${length} characters (limit ${limit})`);
  };
  if (typeof el.action_id === 'string') max('action_id', el.action_id.length, LIMITS.actionId);
  if (el.type === 'button') {
    max('button text', text(el.text).length, LIMITS.buttonText);
    if (typeof el.value === 'string') max('button value', el.value.length, LIMITS.buttonValue);
  }
  const confirm = el.confirm as Json | undefined;
  if (confirm) {
    max('confirm title', text(confirm.title).length, LIMITS.confirmTitle);
    max('confirm text', text(confirm.text).length, LIMITS.confirmText);
    max('confirm button', text(confirm.confirm).length, LIMITS.confirmButton);
    max('deny button', text(confirm.deny).length, LIMITS.confirmButton);
  }
}

/** Every problem with a list of blocks; empty when Slack would accept them. */
export function blockProblems(blocks: unknown[], surface: 'message' | 'view' = 'message'): string[] {
  const problems: string[] = [];
  const maxBlocks = surface === 'message' ? LIMITS.messageBlocks : LIMITS.viewBlocks;
  if (blocks.length > maxBlocks) problems.push(`${blocks.length} blocks (limit ${maxBlocks})`);
  blocks.forEach((raw, i) => {
    const block = raw as Json;
    const where = `blocks[${i}] (${String(block.type)})`;
    const max = (what: string, length: number, limit: number) => {
      if (length > limit) problems.push(`${where}: ${what} is ${length} characters (limit ${limit})`);
    };
    if (typeof block.block_id === 'string') max('block_id', block.block_id.length, LIMITS.blockId);
    switch (block.type) {
      case 'header':
        if (!text(block.text)) problems.push(`${where}: header without text`);
        max('header text', text(block.text).length, LIMITS.headerText);
        break;
      case 'section': {
        const fields = (block.fields as Json[] | undefined) ?? [];
        if (!text(block.text) && fields.length === 0) problems.push(`${where}: section without text or fields`);
        max('section text', text(block.text).length, LIMITS.sectionText);
        if (fields.length > LIMITS.sectionFields)
          problems.push(`${where}: ${fields.length} fields (limit ${LIMITS.sectionFields})`);
        fields.forEach((f, j) => {
          max(`fields[${j}]`, text(f).length, LIMITS.fieldText);
        });
        if (block.accessory) checkElement(block.accessory as Json, `${where}.accessory`, problems);
        break;
      }
      case 'actions': {
        const elements = (block.elements as Json[] | undefined) ?? [];
        if (elements.length === 0) problems.push(`${where}: actions without elements`);
        if (elements.length > LIMITS.actionsElements)
          problems.push(`${where}: ${elements.length} elements (limit ${LIMITS.actionsElements})`);
        elements.forEach((el, j) => {
          checkElement(el, `${where}.elements[${j}]`, problems);
        });
        break;
      }
      case 'context': {
        const elements = (block.elements as Json[] | undefined) ?? [];
        if (elements.length === 0 || elements.length > LIMITS.contextElements) {
          problems.push(`${where}: ${elements.length} elements (1 to ${LIMITS.contextElements})`);
        }
        break;
      }
      default:
        break;
    }
  });
  return problems;
}

/** Problems of a chat.postMessage / chat.update / chat.postEphemeral payload. */
export function messageProblems(message: { text?: unknown; blocks?: unknown }): string[] {
  const problems: string[] = [];
  const fallback = typeof message.text === 'string' ? message.text : '';
  if (!fallback.trim()) problems.push('no plain `text` fallback');
  if (fallback.length > LIMITS.messageText)
    problems.push(`text is ${fallback.length} characters (limit ${LIMITS.messageText})`);
  if (message.blocks !== undefined) {
    if (!Array.isArray(message.blocks)) problems.push('blocks is not an array');
    else problems.push(...blockProblems(message.blocks, 'message'));
  }
  return problems;
}
