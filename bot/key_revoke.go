package bot

import (
	"context"
)

// revokeReasonOwner is the reason recorded when members revoke their own
// key.
const revokeReasonOwner = "revoked by its owner"

// revokeKey is "/key revoke": members withdraw their own key (it leaked,
// say). The first request asks for a confirmation; the same command
// again, or the button, within the window revokes the key at once; the
// next "/key get" issues a new one. byButton says the confirmation button
// was pressed.
func (b *Bot) revokeKey(ctx context.Context, who requester, style commandStyle, byButton bool) answer {
	if ask, confirmed := b.confirm(ctx, who, style, byButton, confirmation{
		action: subRevoke, question: textConfirmRevoke(style), expired: textRevokeConfirmationExpired(style),
	}); !confirmed {
		return ask
	}
	if err := b.deps.Keys.Revoke(ctx, who.userID, actorFor(who.userID), revokeReasonOwner); err != nil {
		b.pending.drop(who.userID, subRevoke)
		return b.keyRefusal(ctx, "revoke a key", who, err, style)
	}
	return answer{text: textOwnKeyRevoked(style)}
}
