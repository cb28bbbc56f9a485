package transcript

// Texts is Parse without the tool calls, for readers that need only who
// said what (the instruction, the person's new words).
func Texts(body []byte) ([]Message, error) {
	msgs, err := Parse(body)
	for i := range msgs {
		msgs[i].ToolCalls = nil
	}
	return msgs, err
}
