package android.content;

/** android.content.ClipData: plain text clips. */
public class ClipData {
    public static class Item {
        private final CharSequence text;

        public Item(CharSequence text) {
            this.text = text;
        }

        public CharSequence getText() {
            return text;
        }
    }

    private final Item item;

    private ClipData(Item item) {
        this.item = item;
    }

    public static ClipData newPlainText(CharSequence label, CharSequence text) {
        return new ClipData(new Item(text));
    }

    public int getItemCount() {
        return 1;
    }

    public Item getItemAt(int index) {
        return item;
    }
}
