int square(int x) { return x * x; }
int main(void) { return square(3) - 9; }
