/** What Slack says about people, for deciding who may see what. Each may throw ExternalServiceError. */
export interface SlackDirectory {
  /** A guest: a single- or multi-channel guest (`is_restricted`, `is_ultra_restricted`). */
  isGuest(userId: string): Promise<boolean>;
  /** Whether the user is a member of the channel. */
  inChannel(userId: string, channel: string): Promise<boolean>;
}
