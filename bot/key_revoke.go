package bot

import (
	"context"
	"errors"

	"github.com/crownsdev/crowns/keys"
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
	err := b.deps.Keys.Revoke(ctx, who.userID, actorFor(who.userID), revokeReasonOwner)
	if errors.Is(err, keys.ErrNoKeyToRevoke) {
		// Revoked meanwhile (by a moderator or a leak report).
		b.pending.drop(who.userID, subRevoke)
		if info, infoErr := b.deps.Keys.Info(ctx, who.userID); infoErr == nil {
			return answer{text: textNoKeyInUse(info, style)}
		}
	}
	if err != nil {
		b.pending.drop(who.userID, subRevoke)
		return b.keyRefusal(ctx, "revoke a key", who, err, style)
	}
	return answer{text: textOwnKeyRevoked(style)}
}
