package bot

import "github.com/bwmarrin/discordgo"

// An interaction whose data Discord sent in a form discordgo could not
// decode (a component type or field newer than the library, say) still
// reaches the handlers, with the right type and no data: discordgo logs
// the error and passes the event on. discordgo's own accessors
// (ApplicationCommandData and the like) panic on such an interaction, so
// the desk reads the data through these, which give the empty data
// instead: an unknown command, a button or form of no known id, each
// answered as such.

// commandData is the data of a slash command; empty when there is none.
func commandData(i *discordgo.Interaction) discordgo.ApplicationCommandInteractionData {
	data, _ := i.Data.(discordgo.ApplicationCommandInteractionData)
	return data
}

// componentData is the data of a button press; empty when there is none.
func componentData(i *discordgo.Interaction) discordgo.MessageComponentInteractionData {
	data, _ := i.Data.(discordgo.MessageComponentInteractionData)
	return data
}

// formData is the data of a submitted form; empty when there is none.
func formData(i *discordgo.Interaction) discordgo.ModalSubmitInteractionData {
	data, _ := i.Data.(discordgo.ModalSubmitInteractionData)
	return data
}
